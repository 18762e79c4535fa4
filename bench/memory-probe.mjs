// Loaded into a process under measurement (`node --expose-gc --import ./bench/memory-probe.mjs …`):
// on SIGUSR2 it collects garbage twice and writes process.memoryUsage() as JSON to
// BENCH_MEMORY_FILE, so the bench reads the heap and RSS after GC without an inspector.
import { renameSync, writeFileSync } from 'node:fs';

const file = process.env.BENCH_MEMORY_FILE;
if (file) {
  process.on('SIGUSR2', () => {
    globalThis.gc?.();
    globalThis.gc?.();
    writeFileSync(`${file}.tmp`, JSON.stringify(process.memoryUsage()));
    renameSync(`${file}.tmp`, file);
  });
}
