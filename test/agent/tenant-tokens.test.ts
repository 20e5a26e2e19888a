import { ReceiverSecretError, TenantTokens } from '../../workers/receiver/tenant-tokens';

describe('TenantTokens', () => {
  const tokens = new TenantTokens('s'.repeat(64));

  it('gives each tenant its own unguessable token, the same every time', () => {
    expect(tokens.tokenOf('tenant-1')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokens.tokenOf('tenant-1')).toBe(new TenantTokens('s'.repeat(64)).tokenOf('tenant-1'));
    expect(tokens.tokenOf('tenant-2')).not.toBe(tokens.tokenOf('tenant-1'));
    expect(new TenantTokens('t'.repeat(64)).tokenOf('tenant-1')).not.toBe(tokens.tokenOf('tenant-1'));
  });

  it("accepts only the tenant's own token", () => {
    expect(tokens.matches('tenant-1', tokens.tokenOf('tenant-1'))).toBe(true);
    expect(tokens.matches('tenant-1', tokens.tokenOf('tenant-2'))).toBe(false);
    expect(tokens.matches('tenant-1', '')).toBe(false);
  });

  it('puts the token in the webhook URL path', () => {
    expect(tokens.webhookUrl('https://idv.example/', 'tenant-1')).toBe(
      `https://idv.example/agent/tenant-1/${tokens.tokenOf('tenant-1')}`,
    );
  });

  it('refuses a secret too short to make unguessable tokens', () => {
    expect(() => new TenantTokens('short')).toThrow(ReceiverSecretError);
    expect(() => new TenantTokens(undefined)).toThrow(/IDV_RECEIVER_SECRET must be at least 32 characters/);
  });
});
