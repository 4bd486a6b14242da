import { forgetUnreadableReports } from '../../src/storage/stored-json.js';

// Run before every test file (`setupFiles` in vitest.config.ts). The files share their worker's
// modules (`isolate: false`), so what a module keeps per process is reset here to what a file
// would find in a process of its own: the unreadable stored values reported so far.
forgetUnreadableReports();
