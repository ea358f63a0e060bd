// The CLI's entry, run by bin/crm-proxy.mjs (which keeps compiled code on disk first).
import { main } from './main.ts';

const code = await main(process.argv.slice(2));
// undefined: a long-running command (serve, sandbox) owns the process from here on.
if (code !== undefined) process.exitCode = code;
