/**
 * Installs the Reflect metadata API, which the passkey plugin's certificate parser (@peculiar/x509,
 * through tsyringe) needs before it loads. A module of its own, imported first by passkeys.ts: the
 * bundler runs each module's body after the bodies of everything it imports, so the import has to
 * sit in a module that imports nothing else.
 */
import "reflect-metadata";
