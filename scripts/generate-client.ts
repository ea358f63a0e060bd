// `npm run client:generate`: regenerates packages/client/src/schema.ts from the routes.
import { writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { CLIENT_SCHEMA_FILE, generateClientSchema } from './client-schema.ts';

await writeFile(CLIENT_SCHEMA_FILE, await generateClientSchema());
process.stdout.write(`wrote ${relative(process.cwd(), CLIENT_SCHEMA_FILE)}\n`);
