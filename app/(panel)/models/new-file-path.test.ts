import { describe, expect, it } from 'vitest';
import { newFilePath } from './new-file-path';

describe('newFilePath', () => {
  it('puts what the placeholder suggests under models/, keeps other project folders as typed', () => {
    expect(newFilePath('marts/new_model.sql')).toBe('models/marts/new_model.sql');
    expect(newFilePath('orders')).toBe('models/orders.sql');
    expect(newFilePath('models/marts/x.sql')).toBe('models/marts/x.sql');
    expect(newFilePath(' /marts/schema.yml ')).toBe('models/marts/schema.yml');
    expect(newFilePath('tests/assert_positive.sql')).toBe('tests/assert_positive.sql');
    expect(newFilePath('macros/cents')).toBe('macros/cents.sql');
    expect(newFilePath('dbt_project.yml')).toBe('dbt_project.yml');
    expect(newFilePath('staging/overview.md')).toBe('models/staging/overview.md');
  });
});
