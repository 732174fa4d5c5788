/**
 * Reads `.env` from the working directory into process.env when the file
 * exists, with Node's own parser (process.loadEnvFile, Node 20.12+). A
 * variable already set in the environment wins over the file, so a shell
 * export, compose's `environment:` or a test's spawn env always decides.
 * Returns whether a file was read.
 */
export function loadEnvFileIfPresent(path = '.env'): boolean {
  try {
    process.loadEnvFile(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
