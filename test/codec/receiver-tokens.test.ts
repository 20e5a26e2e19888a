import { ReceiverSecretError, ReceiverTokens } from '../../codec/receiver-tokens';

describe('ReceiverTokens', () => {
  const tokens = new ReceiverTokens('s'.repeat(64));

  it('gives each tenant its own unguessable token, the same every time', () => {
    expect(tokens.tenantToken('tenant-1')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokens.tenantToken('tenant-1')).toBe(new ReceiverTokens('s'.repeat(64)).tenantToken('tenant-1'));
    expect(tokens.tenantToken('tenant-2')).not.toBe(tokens.tenantToken('tenant-1'));
    expect(new ReceiverTokens('t'.repeat(64)).tenantToken('tenant-1')).not.toBe(
      tokens.tenantToken('tenant-1'),
    );
  });

  it('keeps the tenant tokens it made before: webhooks registered with them go on working', () => {
    expect(tokens.tenantToken('tenant-1')).toBe('hMTcV-9cyWi396zUaNmGZ-ZP0eoTXa-3vJ6OZacj5zI');
  });

  it("accepts only the tenant's own token", () => {
    expect(tokens.matchesTenant('tenant-1', tokens.tenantToken('tenant-1'))).toBe(true);
    expect(tokens.matchesTenant('tenant-1', tokens.tenantToken('tenant-2'))).toBe(false);
    expect(tokens.matchesTenant('tenant-1', '')).toBe(false);
  });

  it('puts the token in the webhook URL path', () => {
    expect(tokens.webhookUrl('https://idv.example/', 'tenant-1')).toBe(
      `https://idv.example/agent/tenant-1/${tokens.tenantToken('tenant-1')}`,
    );
  });

  it("gives each verification's return its own token, which opens nothing else", () => {
    expect(tokens.returnToken('order-4711')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokens.returnToken('order-4711')).not.toBe(tokens.returnToken('order-4712'));
    expect(tokens.matchesReturn('order-4711', tokens.returnToken('order-4711'))).toBe(true);
    expect(tokens.matchesReturn('order-4711', tokens.returnToken('order-4712'))).toBe(false);
    expect(tokens.matchesReturn('order-4711', tokens.tenantToken('order-4711'))).toBe(false);
    expect(tokens.matchesTenant('tenant-1', tokens.returnToken('tenant-1'))).toBe(false);
    expect(tokens.matchesReturn('order-4711', '')).toBe(false);
  });

  it('puts the token in the return URL path, after the reference', () => {
    expect(tokens.returnUrl('https://idv.example/', 'order-4711')).toBe(
      `https://idv.example/return/order-4711/${tokens.returnToken('order-4711')}`,
    );
  });

  it('refuses a secret too short to make unguessable tokens', () => {
    expect(() => new ReceiverTokens('short')).toThrow(ReceiverSecretError);
    expect(() => new ReceiverTokens(undefined)).toThrow(/IDV_RECEIVER_SECRET must be at least 32 characters/);
  });
});
