/**
 * The public API of `@once/cli`: the `once` command (its binary, and
 * `runCli` to run it in-process), the shape of an app module it loads, and
 * its error. The views it builds of a data directory (sessions, journal
 * entries, verification, corrupt tails) serve the reference app's
 * operations endpoints too: `@once/cli/internal`.
 *
 * @packageDocumentation
 * @public
 */
export { runCli } from './program';
export { type CliIo, type GlobalOptions } from './output';
export { CliError } from './cli-error';
export { type OnceAppModule } from './app-module';
