import { notify } from '../../ui/toast-queue';

/** Puts text on the clipboard and says so; where the browser refuses, says where to copy it from. */
export async function copyText(text: string, done: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    notify(done);
  } catch {
    notify('The browser did not allow copying', 'Select the text and copy it.');
  }
}
