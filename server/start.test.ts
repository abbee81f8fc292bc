import { Agent, request } from 'node:http';
import { afterEach, expect, test } from 'vitest';
import { type Harness, startHarness } from './test/harness.js';

/** Graceful shutdown: close() lets requests in flight finish against a live database, and idle
 * keep-alive sockets do not hold the process open. */
let h: Harness | undefined;
afterEach(async () => {
  // Each test closes its own server; this only cleans up after a failed assertion.
  await h?.close().catch(() => {});
  h = undefined;
});

test('a request in flight when close() starts finishes with its real answer, and its response says connection: close', async () => {
  h = await startHarness();
  const project = await h.createProject();
  const user = await h.signUpUser(project);
  const body = JSON.stringify({ email: user.email, password: user.password });
  const url = new URL(`${h.url}/api/v1/auth/password/sign-in`);
  const clientHeaders = Object.fromEntries(Object.entries(project.client()).filter((e): e is [string, string] => e[1] !== undefined));

  const response = new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { ...clientHeaders, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: text }));
      },
    );
    req.on('error', reject);
    // Half the body now: the server has the request but cannot answer it yet.
    req.write(body.slice(0, 10));
    setTimeout(() => {
      const closed = h!.latch.close();
      // The rest arrives after close() began; the sign-in still needs the database.
      setTimeout(() => req.end(body.slice(10)), 100);
      void closed;
    }, 200);
  });

  const res = await response;
  expect(res.status, res.body).toBe(200);
  expect(JSON.parse(res.body).user_id).toBe(user.userId);
  expect(res.connection).toBe('close');
  h = undefined;
});

test('an idle keep-alive socket is closed by close(), so close() does not wait for the client', async () => {
  h = await startHarness();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  // The agent emits 'free' when it takes the socket back into its pool after the response.
  const pooled = new Promise<void>((resolve) => agent.once('free', () => resolve()));
  const socketClosed = new Promise<void>((resolve, reject) => {
    const req = request(`${h!.url}/health`, { agent }, (res) => res.resume());
    // The socket stays pooled by the agent (keep-alive) after the response; only the server can end it.
    req.on('socket', (socket) => socket.once('close', () => resolve()));
    req.on('error', reject);
    req.end();
  });
  // Wait until the agent has pooled the socket (a fixed 50 ms pause was too short on a loaded machine).
  await pooled;
  expect(Object.values(agent.freeSockets).flat()).toHaveLength(1);
  const running = h.latch;
  let closedAfter = false;
  const closing = running.close().then(() => (closedAfter = true));
  await socketClosed;
  await closing;
  expect(closedAfter).toBe(true);
  agent.destroy();
  h = undefined;
});
