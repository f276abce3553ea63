// Carriers as SIP providers need them (docs/carriers.md): a migration of src/store/migrations.ts, in its order there.
// A carrier was one address, both the trusted source of its calls and the one gateway for calls to numbers, with one
// optional prefix; each becomes a source, a gateway and a route of its own, so nothing an operator set up changes.

export const CARRIER_GATEWAYS = `
  CREATE TABLE carrier_sources (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    carrier_id INTEGER NOT NULL REFERENCES carriers(id),
    network TEXT NOT NULL,
    port INTEGER
  );
  CREATE INDEX carrier_sources_carrier ON carrier_sources(carrier_id);
  CREATE TABLE carrier_gateways (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    carrier_id INTEGER NOT NULL REFERENCES carriers(id),
    host TEXT NOT NULL,
    port INTEGER,
    transport TEXT NOT NULL,
    priority INTEGER NOT NULL,
    weight INTEGER NOT NULL
  );
  CREATE INDEX carrier_gateways_carrier ON carrier_gateways(carrier_id);
  CREATE TABLE carrier_routes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    carrier_id INTEGER NOT NULL REFERENCES carriers(id),
    prefix TEXT NOT NULL,
    priority INTEGER NOT NULL,
    weight INTEGER NOT NULL
  );
  CREATE INDEX carrier_routes_carrier ON carrier_routes(carrier_id);
  INSERT INTO carrier_sources (carrier_id, network, port) SELECT id, host, port FROM carriers ORDER BY id;
  INSERT INTO carrier_gateways (carrier_id, host, port, transport, priority, weight) SELECT id, host, port, 'udp', 0, 1 FROM carriers ORDER BY id;
  INSERT INTO carrier_routes (carrier_id, prefix, priority, weight) SELECT id, COALESCE(prefix, ''), 0, 1 FROM carriers ORDER BY id;
  ALTER TABLE carriers DROP COLUMN host;
  ALTER TABLE carriers DROP COLUMN port;
  ALTER TABLE carriers DROP COLUMN prefix;
  ALTER TABLE carriers ADD COLUMN auth_username TEXT;
  ALTER TABLE carriers ADD COLUMN auth_password_sealed TEXT;
  ALTER TABLE carriers ADD COLUMN auth_realm TEXT;
  ALTER TABLE carriers ADD COLUMN registration TEXT;
  ALTER TABLE carriers ADD COLUMN number_rules TEXT;
  ALTER TABLE carriers ADD COLUMN dtmf TEXT NOT NULL DEFAULT 'rfc2833';
  ALTER TABLE carriers ADD COLUMN codecs TEXT;
  ALTER TABLE carriers ADD COLUMN srtp TEXT NOT NULL DEFAULT 'off';
  ALTER TABLE carriers ADD COLUMN options_ping_s INTEGER;
`;
