import pkg from '../../package.json';

/** Tributary's version, from package.json. */
export const VERSION: string = pkg.version;
