// agy 1.2.17/1.3.1's print timeout: SUCCESS, empty response, all-zero usage, no model step; the stderr line
// may follow the result line late, or not at all (agy-real/README.md). The status comes from stdout alone.
// agy-real/joiomi-playbook-plugin-agy-1.2.17/print-timeout.stdout, print-timeout.stderr
import { describe, expect, it } from 'vitest';
import { useReplay } from '../../helpers/capture-replay.js';
import { HAVE_CAPTURES, NO_CAPTURES_REASON } from '../../helpers/captures.js';

const replay = useReplay();
const STDOUT = 'joiomi-playbook-plugin-agy-1.2.17/print-timeout.stdout';
const STDERR = 'joiomi-playbook-plugin-agy-1.2.17/print-timeout.stderr';

describe.skipIf(!HAVE_CAPTURES)(
  HAVE_CAPTURES ? 'print timeout, whatever stderr does' : `skipped: ${NO_CAPTURES_REASON}`,
  () => {
    it('stderr absent → timeout', async () => {
      const { result } = await replay({ stdout: STDOUT });
      expect(result.status).toBe('timeout');
      expect(result.usage).toBeNull();
      expect(result.text).toBe('');
      expect(result.errorMessage).toMatch(/print timeout/);
    });

    it('stderr right after the result line → timeout', async () => {
      const { result } = await replay({ stdout: STDOUT, stderr: STDERR });
      expect(result.status).toBe('timeout');
    });

    it('stderr 50 ms after the result line → timeout', async () => {
      const { result } = await replay({ stdout: STDOUT, stderr: STDERR }, { REPLAY_STDERR_DELAY_MS: '50' });
      expect(result.status).toBe('timeout');
    });

    it('1.3.1 (stderr not captured) → timeout', async () => {
      // agy-real/joiomi-playbook-plugin-agy-1.3.1/print-timeout.stdout
      const { result } = await replay({ stdout: 'joiomi-playbook-plugin-agy-1.3.1/print-timeout.stdout' });
      expect(result.status).toBe('timeout');
    });
  },
);
