import { InMemoryDirectory } from '../../src/infrastructure/in-memory/in-memory-directory';
import { describePersistenceContract } from './persistence.contract';

describePersistenceContract('the in-memory adapters', async () => {
  const directory = new InMemoryDirectory();
  const { people, accounts, keys, audit, changes, calendar, feed, unitOfWork } = directory;
  return {
    repositories: { people, accounts, keys, audit, changes, calendar },
    feed,
    unitOfWork,
    close: async () => undefined,
  };
});
