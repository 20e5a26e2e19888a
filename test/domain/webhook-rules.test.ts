import {
  MAX_NOTIFICATION_WEBHOOKS,
  webhookRegistrationProblem,
} from '../../agent-platform/domain/webhook-rules';

// What the webhook registry refuses before it calls the earlier platform.
describe('webhook registration rules', () => {
  const hook = (n: number) => ({ url: `https://hooks.example.com/${n}`, type: 'Notification' });

  it('accepts an absolute https or http URL of a Notification webhook', () => {
    expect(webhookRegistrationProblem(hook(1), [])).toBeUndefined();
    expect(
      webhookRegistrationProblem({ url: 'http://127.0.0.1:8080/agent/t/x', type: 'Notification' }, []),
    ).toBeUndefined();
  });

  it.each([
    [{ url: '/relative/path', type: 'Notification' }, /absolute http\(s\) URL/],
    [{ url: 'ftp://hooks.example.com/x', type: 'Notification' }, /absolute http\(s\) URL/],
    [{ url: 'javascript:alert(1)', type: 'Notification' }, /absolute http\(s\) URL/],
    [{ url: 'https://hooks.example.com/x', type: 'DelegatedEndorser' }, /Endorser webhooks are announced/],
    [{ url: 'https://hooks.example.com/x', type: 'Endorser' }, /Endorser webhooks are announced/],
    [{ url: 'https://hooks.example.com/x', type: 'Zapier' }, /type must be Notification/],
  ])('refuses %j', (request, message) => {
    expect(webhookRegistrationProblem(request, [])).toMatch(message);
  });

  it(`refuses a sixth Notification webhook and a URL registered twice`, () => {
    const five = Array.from({ length: MAX_NOTIFICATION_WEBHOOKS }, (_, i) => hook(i));
    expect(webhookRegistrationProblem(hook(99), five)).toMatch(/at most 5 Notification webhooks/);
    expect(webhookRegistrationProblem(hook(99), five.slice(1))).toBeUndefined();
    expect(webhookRegistrationProblem(hook(2), five.slice(1))).toMatch(/registered already/);
  });
});
