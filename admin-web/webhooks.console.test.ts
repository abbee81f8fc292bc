import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { signInOwner, useConsoleSuite } from './test/console-suite.js';

/**
 * The console's Webhooks page in headless Chromium against a real server and a local receiver:
 * the owner adds an endpoint (its secret shown once), sends a test event, and sees the delivery
 * in the log with the receiver's status and body; the receiver verifies it with that secret.
 */

let receiver: Server;
let receiverUrl: string;
const received: { headers: Record<string, string>; body: string }[] = [];

// The receiver starts first (the server's env allows its private address) and closes after the suite.
afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});
const suite = useConsoleSuite(async () => {
  receiver = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('got it, thanks');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  return { webhooksAllowPrivate: true };
}, 180_000);

describe('webhooks in the console', { timeout: 120_000 }, () => {
  it('adds an endpoint, shows its secret once, sends a test event and lists the delivery', async () => {
    const owner = await suite.h.signUpOwner();
    const project = await suite.h.createProject({ owner, displayName: 'Console webhooks' });
    const { context, page } = await suite.newPage({ timeoutMs: 20_000 });
    await signInOwner(suite, page, `/projects/${project.id}/webhooks`, owner.email, { until: page.getByRole('link', { name: 'Webhooks' }) });

    await page.getByLabel('Endpoint URL').fill(receiverUrl);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.getByTestId('webhook-secret').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'Manage' }).click();
    await page.getByRole('button', { name: 'Send test event' }).click();
    const row = page.getByTestId('webhook-delivery').first();
    await expect.poll(async () => row.textContent(), { timeout: 30_000 }).toContain('sent');
    expect(await row.textContent()).toContain('webhook.test');
    expect(await row.textContent()).toContain('200');
    expect(await row.textContent()).toContain('got it, thanks');

    // The receiver got it, signed with the secret the page showed.
    expect(received).toHaveLength(1);
    const payload = new Webhook(secret).verify(received[0]!.body, received[0]!.headers) as { type: string };
    expect(payload.type).toBe('webhook.test');
    await context.close();
  });
});
