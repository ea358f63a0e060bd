// Entry of `npm run cli` and bin/crm-proxy.mjs.
import { main } from './main.ts';

const code = await main(process.argv.slice(2));
// undefined: a long-running command (serve, sandbox) owns the process from here on.
if (code !== undefined) process.exitCode = code;
