import {
  migrationInputProblems,
  type PlatformMigrationInput,
} from '../../agent-platform/domain/migration/migration-input';

const valid: PlatformMigrationInput = {
  tenant: 'acme',
  apply: true,
  target: {
    authUrl: 'https://auth.example/eco',
    schemaBaseUrl: 'https://schemas.example',
    clientId: 'acme-client',
    ecosystem: 'acme',
    redirectUri: 'https://app.example/verified/{policy}',
  },
};
const withTarget = (target: Partial<PlatformMigrationInput['target']>): PlatformMigrationInput => ({
  ...valid,
  target: { ...valid.target, ...target },
});

describe('migrationInputProblems', () => {
  it('accepts a valid input, and http on this machine', () => {
    expect(migrationInputProblems(valid)).toEqual([]);
    expect(
      migrationInputProblems(withTarget({ redirectUri: 'http://127.0.0.1:8234/verified/{policy}' })),
    ).toEqual([]);
    expect(migrationInputProblems(withTarget({ authUrl: 'http://localhost:3000' }))).toEqual([]);
  });

  it.each([
    [
      { redirectUri: 'relative/{policy}' },
      'redirectUri must be an absolute https URL (http only for localhost)',
    ],
    [
      { redirectUri: 'http://app.example/cb' },
      'redirectUri must be an absolute https URL (http only for localhost)',
    ],
    [
      { redirectUri: 'ftp://app.example/cb' },
      'redirectUri must be an absolute https URL (http only for localhost)',
    ],
    [
      { redirectUri: 'https://app.example/*' },
      'redirectUri must not contain * (register a wildcard with idv redirect-uris add)',
    ],
    [
      { redirectUri: 'https://*.app.example/cb' },
      'redirectUri must not contain * (register a wildcard with idv redirect-uris add)',
    ],
    [{ redirectUri: 'https://app.example/cb#done' }, 'redirectUri must not have a fragment (#)'],
    [{ redirectUri: 'https://u:p@app.example/cb' }, 'redirectUri must not carry credentials'],
    [{ authUrl: 'auth.example' }, 'authUrl must be an absolute https URL (http only for localhost)'],
    [{ schemaBaseUrl: '' }, 'schemaBaseUrl must be an absolute https URL (http only for localhost)'],
    [{ clientId: 'has space' }, 'clientId must be 1 to 200 characters without spaces'],
    [{ ecosystem: '' }, 'ecosystem must be 1 to 200 characters without spaces'],
    [{ mapping: { dob: 'date' } as never }, 'mapping: dob must be one of string, number, boolean, datetime'],
    [{ mapping: [] as never }, 'mapping must be an object of attribute name → type'],
  ])('refuses %j: %s', (target, problem) => {
    expect(migrationInputProblems(withTarget(target))).toEqual([problem]);
  });

  it('names the tenant, the mode and a missing target', () => {
    expect(migrationInputProblems({ ...valid, tenant: 'a b' })[0]).toMatch(/tenant/);
    expect(migrationInputProblems({ ...valid, apply: 'yes' as never })).toEqual([
      'apply must be true or false',
    ]);
    expect(migrationInputProblems({ tenant: 'acme' } as never)).toEqual(['target is required']);
  });
});
