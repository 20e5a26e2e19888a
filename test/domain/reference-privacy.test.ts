import {
  parseVerificationRequest,
  InvalidVerificationRequestError,
} from '../../verification/client/parse-request';
import { personalDataInReference } from '../../verification/domain/reference-privacy';

// A reference becomes a workflow ID, shown to every operator and kept in visibility: it must not
// carry personal data.
describe('business references that look like personal data', () => {
  it.each([
    ['ada.lovelace@example.com', /email address/],
    ['ada-lovelace-1990-12-10', /name with a date/],
    ['lovelace.ada.19901210', /name with a date/],
    ['smith_john_10.12.1990', /name with a date/],
    ['AdaLovelace-1990-12-10', /name with a date/],
    ['ada-lovelace-10121990', /name with a date/],
  ])('refuses %s', (reference, message) => {
    expect(personalDataInReference(reference)).toMatch(message);
  });

  it.each([
    'order-2026-11-22-0001',
    'case:48213',
    'ORD-20261122-17',
    'kyc-7f3c2a',
    'case-ab-2026-11-22',
    'invoice-20261122',
  ])('accepts %s', (reference) => {
    expect(personalDataInReference(reference)).toBeUndefined();
  });

  it('accepts uuids, whatever digits they hold', () => {
    const refused = Array.from({ length: 20_000 }, () => crypto.randomUUID()).filter((id) =>
      personalDataInReference(id),
    );
    expect(refused).toEqual([]);
  });

  it('refuses such a reference in a request, naming the field, before anything starts', () => {
    const error = (() => {
      try {
        parseVerificationRequest({
          reference: 'ada-lovelace-1990-12-10',
          verificationProfileId: '6f1f6e2a-5b0c-4b0e-9d52-3f2f1d1c0a11',
          provider: 'trinsic-test-database-lookup',
          capabilities: ['PollResult'],
        });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidVerificationRequestError);
    expect((error as InvalidVerificationRequestError).errors.reference?.[0]).toMatch(
      /use an order or case number/,
    );
  });
});
