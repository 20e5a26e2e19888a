// A minimal local HTTP server answering GetSession with a fixed body, run in its own process so
// that the client under test has the event loop to itself.
import { createServer } from 'node:http';

const body = JSON.stringify({
  session: {
    id: '678c1ff6-2178-49e7-81d2-548afb6f85ec',
    done: false,
    success: false,
    errorCode: null,
    created: 1722526411,
    updated: 1722526722,
  },
});

const server = createServer((request, response) => {
  request.resume();
  response.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('disconnect', () => server.close(() => process.exit(0)));
