import t from 'tap';
import { callFlowSuite } from './suite.js';
import { sandboxDriver } from './sandbox-driver.js';
import { callsApiSuite } from './calls-suite.js';
import { conferenceSuite } from './conference-suite.js';
import { acdSuite } from './acd-suite.js';
import { fallbackSuite } from './fallback-suite.js';
import { callControlSuite } from './call-control-suite.js';
import { redirectSuite } from './redirect-suite.js';

callFlowSuite(t, (tt) => sandboxDriver(tt));
callsApiSuite(t, (tt) => sandboxDriver(tt));
conferenceSuite(t, (tt) => sandboxDriver(tt));
acdSuite(t, (tt) => sandboxDriver(tt));
fallbackSuite(t, (tt) => sandboxDriver(tt));
callControlSuite(t, (tt) => sandboxDriver(tt));
redirectSuite(t, (tt) => sandboxDriver(tt));
