import { devKubectl } from '/work/main/bench/dev-watch.js';
process.stdout.write(devKubectl('/work/main/.cache/bench-convergence', process.argv.slice(2)));
