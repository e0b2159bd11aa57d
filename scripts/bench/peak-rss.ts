import { writeFileSync } from 'node:fs';

// Preloaded (node --require) into a process the bench runs: at exit, writes the process's peak
// resident memory in bytes to the file BENCH_PEAK_RSS_FILE names. Exact, unlike sampling /proc.
const file = process.env.BENCH_PEAK_RSS_FILE;
if (file) {
  process.on('exit', () => {
    writeFileSync(file, String(process.resourceUsage().maxRSS * 1024));
  });
}
