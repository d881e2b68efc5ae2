#!/usr/bin/env node
import { runCli } from './program';

/** The `once` bin: runs the CLI on the process's arguments and exits with its code. */
runCli(process.argv, { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  (code) => process.stdout.write('', () => process.exit(code)),
  (error: unknown) => {
    process.stderr.write(`once: ${String(error)}\n`);
    process.exit(1);
  },
);
