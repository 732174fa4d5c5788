import { describe, expect, it } from 'vitest';
import { DEFAULT_WORLD, parseWorldOptions } from './world-options.js';

describe('parseWorldOptions', () => {
  it('sets sizes, process counts and rate lists over the base, leaving the rest', () => {
    const options = parseWorldOptions('users=10000,apis=2,workers=3,rates=8000:12000:16000,polledRates=4000,pollRate=0,warmS=30');
    expect(options).toEqual({
      ...DEFAULT_WORLD,
      users: 10_000,
      apis: 2,
      workers: 3,
      rates: [8_000, 12_000, 16_000],
      polledRates: [4_000],
      pollRate: 0,
      warmS: 30,
    });
    expect(parseWorldOptions('', DEFAULT_WORLD)).toEqual(DEFAULT_WORLD);
  });

  it('builds on the base it is given', () => {
    const base = { ...DEFAULT_WORLD, users: 5_000, rates: [1_000, 2_000] };
    expect(parseWorldOptions('workers=2', base)).toEqual({ ...base, workers: 2 });
  });

  it.each([
    ['nope=1', /unknown size nope/],
    ['users=many', /users needs a number/],
    ['users=', /users needs a number/],
    ['zipfS=-1', /zipfS needs a number/],
    ['rates=8000::12000', /rates needs rates above 0 separated by colons/],
    ['rates=0:1000', /rates needs rates above 0/],
    ['workers=0', /workers counts processes/],
    ['apis=1.5', /apis counts processes/],
  ])('refuses %s', (text, message) => {
    expect(() => parseWorldOptions(text)).toThrow(message);
  });
});
