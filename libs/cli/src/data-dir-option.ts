import { settingDefault } from '@once/settings';
import { type Command, Option } from 'commander';

/** `-d, --data-dir`: the stopped directory a command reads (ONCE_DATA_DIR, else the service's default). */
export function withDataDir(command: Command): Command {
  return command.addOption(
    new Option('-d, --data-dir <dir>', 'data directory of a stopped node')
      .env('ONCE_DATA_DIR')
      .default(settingDefault('dataDir')),
  );
}

/** `--app`: the service's root module, for the commands that replay through it. */
export function withApp(command: Command): Command {
  return command.option(
    '--app <file[#Export]>',
    "the service's built root module: a Nest module importing OnceModule.forRoot, or a class with a static register(options) " +
      '(default: ONCE_APP_MODULE, else the reference service under ./dist)',
  );
}
