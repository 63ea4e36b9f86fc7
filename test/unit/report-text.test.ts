import { describe, expect, it } from 'vitest';
import { percent, pointsChange } from '../../src/report/text.js';

describe('percentages in the reports', () => {
  it('round a tie of the fraction away from zero, as the fraction would round, not as its double does', () => {
    // 23/80 is 28.75%: its double times 100 is 28.749999999999996.
    expect(percent(23 / 80)).toBe('28.8%');
    expect(percent(21 / 80)).toBe('26.3%');
    expect(percent(1 / 3)).toBe('33.3%');
    expect(percent(2 / 3)).toBe('66.7%');
    expect(percent(0)).toBe('0.0%');
    expect(percent(1)).toBe('100.0%');
    expect(percent(0.99949)).toBe('99.9%');
    // Only all is 100.0%, and only none 0.0%.
    expect(percent(1999 / 2000)).toBe('99.9%');
    expect(percent(1 / 3000)).toBe('0.1%');
  });

  it('write a change in points with its sign, the same rounding either way', () => {
    expect(pointsChange(7 / 80)).toBe('+8.8 pt');
    expect(pointsChange(-7 / 80)).toBe('-8.8 pt');
    expect(pointsChange(0)).toBe('+0.0 pt');
    // A change too small to show has no sign to show either.
    expect(pointsChange(-0.0001)).toBe('0.0 pt');
    expect(pointsChange(null)).toBe('n/a');
  });
});
