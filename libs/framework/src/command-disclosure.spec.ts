import 'reflect-metadata';
import { commandDisclosureOf } from './command-disclosure';
import { Command } from './decorators/command.decorator';

class Vault {
  @Command('vault.put', { sensitive: ['pin'] })
  put(): unknown {
    return null;
  }

  @Command('vault.list', { sensitive: [] })
  list(): unknown {
    return null;
  }

  @Command('vault.import')
  import(): unknown {
    return null;
  }
}

describe('commandDisclosureOf', () => {
  it('gives what each command declared sensitive, and nothing for one that declared nothing', () => {
    const found = commandDisclosureOf([new Vault()]);
    expect(found.get('vault.put')).toEqual(['pin']);
    expect(found.get('vault.list')).toEqual([]);
    expect(found.has('vault.import')).toBe(false);
  });
});
