// The browser suite (suite.mjs) in WebKitGTK, Safari's engine.
import { browserSuite } from './suite.mjs';
import { launchWebKit } from './webkit.mjs';

browserSuite(launchWebKit);
