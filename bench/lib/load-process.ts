// Load generator in its own process: reads autocannon options as JSON on stdin, runs them, prints
// the result as JSON. Options go through stdin, not argv: autocannon's argv parser reads `[` as syntax.
import autocannon from 'autocannon';

let input = '';
process.stdin.on('data', (d) => {
  input += String(d);
});
process.stdin.on('end', () => {
  void autocannon(JSON.parse(input) as autocannon.Options).then((result) => {
    process.stdout.write(JSON.stringify(result));
  });
});
