import { paginateRedirectUris, paginateSessions } from '../../api/identity/pagination';
import { doneSession, type mockService, PROFILE_ID, useMockService } from './mock-service';

describe('pagination helpers', () => {
  const mock = useMockService();
  let service: ReturnType<typeof mockService>;
  beforeEach(() => {
    service = mock();
  });

  it('walks ListSessions pages until `more` is false', async () => {
    const base = `/api/v1/verification-profiles/${PROFILE_ID}/sessions?OrderBy=Created&PageSize=2`;
    const s = (n: number) => ({ ...doneSession, id: `00000000-0000-0000-0000-00000000000${n}` });
    service.answer({ method: 'GET', path: `${base}&Page=1` }, 200, {
      sessions: [s(1), s(2)],
      total: 3,
      more: true,
    });
    service.answer({ method: 'GET', path: `${base}&Page=2` }, 200, {
      sessions: [s(3)],
      total: 3,
      more: false,
    });
    const ids: string[] = [];
    for await (const session of paginateSessions(service.identity.sessions, PROFILE_ID, {
      orderBy: 'Created',
      pageSize: 2,
    })) {
      ids.push(session.id);
    }
    expect(ids).toEqual([s(1).id, s(2).id, s(3).id]);
  });

  it('walks redirect URI pages until `more` is false', async () => {
    const uri = (n: number) => ({
      id: `00000000-0000-0000-0000-00000000000${n}`,
      uri: `https://app.example/${n}`,
    });
    service.answer({ method: 'GET', path: '/api/valpha/redirect-uris?page=1' }, 200, {
      uris: [uri(1)],
      more: true,
    });
    service.answer({ method: 'GET', path: '/api/valpha/redirect-uris?page=2' }, 200, {
      uris: [uri(2)],
      more: false,
    });
    const uris: string[] = [];
    for await (const entry of paginateRedirectUris(service.identity.redirectUris)) uris.push(entry.uri);
    expect(uris).toEqual(['https://app.example/1', 'https://app.example/2']);
  });

  it('stops on an empty page even if `more` claims otherwise', async () => {
    service.answer({ method: 'GET', path: '/api/valpha/redirect-uris?page=1' }, 200, {
      uris: [],
      more: true,
    });
    const uris: unknown[] = [];
    for await (const entry of paginateRedirectUris(service.identity.redirectUris)) uris.push(entry);
    expect(uris).toEqual([]);
  });
});
