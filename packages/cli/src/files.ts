/** Why a file named on the command line cannot be read, in words rather than an errno code. */
export function unreadableFile(file: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return `there is no file ${file}`;
    case 'EACCES':
    case 'EPERM':
      return `${file} cannot be read: permission denied`;
    case 'EISDIR':
      return `${file} is a directory, not a file`;
    default:
      return `${file} cannot be read: ${(err as Error).message}`;
  }
}
