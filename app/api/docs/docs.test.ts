import { describe, expect, it } from 'vitest';
import { GET as page } from './route';
import { GET as asset } from './[asset]/route';

const get = (name: string) => asset(new Request(`http://x/api/docs/${name}`), { params: Promise.resolve({ asset: name }) });

describe('API reference', () => {
  it('is served from this installation: no hosted script, style or service', async () => {
    const html = await page().text();
    expect(html).toContain('/api/v1/openapi.json');
    // Every src/href is a local path; the validator badge (a hosted service) is off.
    for (const m of html.matchAll(/(?:src|href)="([^"]+)"/g)) expect(m[1]).toMatch(/^\/api\/docs\//);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).toContain('validatorUrl: null');
    for (const name of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
      const r = await get(name);
      expect(r.status).toBe(200);
      expect((await r.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
    }
  });
  it('serves only its two assets', async () => {
    for (const name of ['../package.json', 'package.json', 'index.html', 'constructor', '__proto__']) expect((await get(name)).status).toBe(404);
  });
});
