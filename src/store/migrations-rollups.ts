// Counts kept beside the rows they summarise: migrations of src/store/migrations.ts, in its order there.
import { CALL_DAYS_FROM_CALLS } from './call-days.js';

/** Calls and answered calls per account and UTC day (src/store/call-days.ts), filled from the calls already there. */
export const CALL_DAYS = `
  CREATE TABLE call_days (
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    day TEXT NOT NULL,
    calls INTEGER NOT NULL,
    answered INTEGER NOT NULL,
    PRIMARY KEY (account_id, day)
  );
  INSERT INTO call_days (account_id, day, calls, answered) ${CALL_DAYS_FROM_CALLS};
`;
