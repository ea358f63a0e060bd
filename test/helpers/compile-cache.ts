// Preloaded into every test process (`node --import`): Node keeps the code it compiles (the type-
// stripped sources included) in node_modules/.cache, so the suite's ~200 processes do not each
// compile the same modules again. The cache follows the files' contents; a changed file is compiled anew.
import module from 'node:module';
import { fileURLToPath } from 'node:url';

module.enableCompileCache(fileURLToPath(new URL('../../node_modules/.cache/node-compile', import.meta.url)));
