import { normaliseSessionState } from '../../verification/domain/session-status';

describe('normalising both generations of session state', () => {
  it.each([
    [
      { done: false, success: false },
      { done: false, status: 'pending' },
    ],
    [
      { done: true, success: true },
      { done: true, status: 'succeeded' },
    ],
    [
      { done: true, success: false, errorCode: 'UserAbandoned' },
      { done: true, status: 'failed', errorCode: 'UserAbandoned' },
    ],
    [
      { done: true, success: false, errorCode: 'Canceled' },
      { done: true, status: 'cancelled', errorCode: 'Canceled' },
    ],
    [
      { done: true, success: false, errorCode: 'Expired' },
      { done: true, status: 'expired', errorCode: 'Expired' },
    ],
    [
      { done: true, success: false, errorCode: 'SomethingNew' },
      { done: true, status: 'failed', errorCode: 'Other' },
    ],
    [
      { done: true, success: false, errorCode: null },
      { done: true, status: 'failed', errorCode: 'Other' },
    ],
  ])('current generation %j → %j', (session, expected) => {
    expect(normaliseSessionState(session)).toEqual(expected);
  });

  it.each([
    [{ state: 'IdvInProgress' }, { done: false, status: 'pending' }],
    [{ state: 'IdvSuccess' }, { done: true, status: 'succeeded' }],
    [
      { state: 'IdvFailed', failCode: 'FailCodeUserCanceled' },
      { done: true, status: 'failed', errorCode: 'UserAbandoned' },
    ],
    [
      { state: 'IdvFailed', failCode: 'SESSION_FAIL_EXPIRED' },
      { done: true, status: 'expired', errorCode: 'Expired' },
    ],
    [
      { state: 'IdvFailed', failCode: 'FailCodeInternal' },
      { done: true, status: 'failed', errorCode: 'Internal' },
    ],
    [{ state: 'IdvFailed' }, { done: true, status: 'failed', errorCode: 'Other' }],
  ])('older generation %j → %j', (session, expected) => {
    expect(normaliseSessionState(session)).toEqual(expected);
  });
});
