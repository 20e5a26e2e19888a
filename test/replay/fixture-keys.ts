import { parseEncryptionKeys } from '../../codec/encryption-keys';

/**
 * The payload key the recorded histories are encrypted with. A fixture, not a secret: it only
 * protects these test histories, and replay must decode them as a worker would.
 */
export const replayFixtureKeys = parseEncryptionKeys(
  'replay-fixture:Jb0Q7u3J2YwLq4f3p0bq2m9hYyXy8W0cQv3nB6sKc1E=',
);
