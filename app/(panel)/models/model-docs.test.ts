import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ModelDocs } from './model-docs';

describe('ModelDocs', () => {
  it('shows the description and the described columns as text (never as HTML)', () => {
    const html = renderToStaticMarkup(createElement(ModelDocs, { model: {
      description: 'One row per <customer>.',
      columns: [{ name: 'customer_id', description: 'The key.', data_type: 'UInt64' }, { name: 'bare' }],
    } }));
    expect(html).toContain('data-testid="model-description">One row per &lt;customer&gt;.</p>');
    expect(html).toMatch(/<td class="mono">customer_id<\/td><td class="mono">UInt64<\/td><td[^>]*>The key.<\/td>/);
    expect(html).not.toContain('bare');
  });
  it('renders nothing for a model without docs', () => {
    expect(renderToStaticMarkup(createElement(ModelDocs, { model: { columns: [{ name: 'x' }] } }))).toBe('');
  });
});
