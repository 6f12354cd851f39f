import { describe, expect, it } from 'vitest';
import { applyNaming } from './naming';

describe('applyNaming', () => {
  it('names source columns by convention; a name that is not a plain identifier keeps its spelling under upper/lower', () => {
    const names = ['film_id', 'FILM_ID', 'ReturnNote', 'Film Id'];
    expect(names.map((n) => applyNaming(n, 'preserve'))).toEqual(['film_id', 'FILM_ID', 'ReturnNote', 'Film Id']);
    expect(names.map((n) => applyNaming(n, 'upper'))).toEqual(['FILM_ID', 'FILM_ID', 'RETURNNOTE', 'Film Id']);
    expect(names.map((n) => applyNaming(n, 'lower'))).toEqual(['film_id', 'film_id', 'returnnote', 'Film Id']);
    expect(names.map((n) => applyNaming(n, 'snake_case'))).toEqual(['film_id', 'film_id', 'return_note', 'film_id']);
  });
});
