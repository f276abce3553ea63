import t from 'tap';
import { callFlowSuite } from './suite.js';
import { sandboxDriver } from './sandbox-driver.js';

callFlowSuite(t, (tt) => sandboxDriver(tt));
