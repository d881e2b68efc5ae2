import { join } from 'node:path';
import { tsBlocksOf, typeErrorsOf } from './code-examples';

const root = join(__dirname, '..', '..');

describe('tsBlocksOf', () => {
  it('finds ts blocks with their line, and leaves out `ts ignore` and other languages', () => {
    const markdown = [
      '# x',
      '```ts',
      'const a = 1;',
      '```',
      '```ts ignore',
      '…',
      '```',
      '```sh',
      'ls',
      '```',
    ].join('\n');
    expect(tsBlocksOf(markdown)).toEqual([{ line: 2, code: 'const a = 1;' }]);
  });
});

describe('typeErrorsOf', () => {
  it('reports an example that does not type-check against the workspace packages, naming it', () => {
    const errors = typeErrorsOf(root, [
      {
        name: 'good',
        code: "import { CommandError } from '@once/framework';\nexport const e = new CommandError('X', 'y');",
      },
      {
        name: 'bad',
        code: "import { CommandError } from '@once/framework';\nexport const n: number = new CommandError('X', 'y').code;",
      },
    ]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^bad, line 2 of the block: Type 'string' is not assignable to type 'number'/,
    );
  });
});
