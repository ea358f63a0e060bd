// Entry of `npm start`, `npm run cli` and bin/crm-proxy.mjs.
import { enableCompileCache } from 'node:module';

// A command loads about a thousand modules; V8's code cache on disk (in the OS temp directory, or
// NODE_COMPILE_CACHE) spares compiling them again on the next start. Where it cannot be written
// (a read-only file system), start-up simply compiles as before.
enableCompileCache();
const { main } = await import('./main.ts');

const code = await main(process.argv.slice(2));
// undefined: a long-running command (serve, sandbox) owns the process from here on.
if (code !== undefined) process.exitCode = code;
