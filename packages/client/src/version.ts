/* The client's own version, sent in the User-Agent it adds (a test keeps it equal to package.json's). */
export const CLIENT_VERSION = '0.1.0';
