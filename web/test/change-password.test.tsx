// The change-password page against POST /v1/users/change-password/ (the generated client). No network.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { auth } from '../src/auth';
import { I18nProvider, makeI18n } from '../src/i18n';
import { ChangePasswordPage } from '../src/pages/account';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  auth.clear();
});

function answer(status: number, body: unknown) {
  const calls: { url: string; body: unknown; authorization: string | null }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      calls.push({ url: request.url, body: JSON.parse(await request.text()), authorization: request.headers.get('authorization') });
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    }),
  );
  return calls;
}

function fill(current: string, next: string) {
  fireEvent.change(screen.getByLabelText('Current password'), { target: { value: current } });
  fireEvent.change(screen.getByLabelText('New password'), { target: { value: next } });
  fireEvent.click(screen.getByRole('button', { name: 'Change password' }));
}

describe('change password', () => {
  it('sends the current and the new password with the session and confirms', async () => {
    auth.set({ access: 'tok', refresh: 'r', is_doctor: false, is_backoffice_admin: false, is_marketer: false });
    const calls = answer(200, { message: 'Password changed.' });
    render(
      <I18nProvider value={makeI18n('en')}>
        <ChangePasswordPage />
      </I18nProvider>,
    );
    fill('old password here', 'a brand new long passphrase');
    await waitFor(() => expect(screen.getByText(/Your password is changed/)).toBeTruthy());
    expect(calls).toHaveLength(1);
    expect(calls[0].url).toMatch(/\/v1\/users\/change-password\/$/);
    expect(calls[0].body).toEqual({ current_password: 'old password here', new_password: 'a brand new long passphrase' });
    expect(calls[0].authorization).toBe('Bearer tok');
  });

  it('ties a wrong current password to its field, in the page language', async () => {
    answer(400, { current_password: ['The current password is not correct.'] });
    render(
      <I18nProvider value={makeI18n('de')}>
        <ChangePasswordPage />
      </I18nProvider>,
    );
    fireEvent.change(screen.getByLabelText('Aktuelles Passwort'), { target: { value: 'wrong' } });
    fireEvent.change(screen.getByLabelText('Neues Passwort'), { target: { value: 'a brand new long passphrase' } });
    fireEvent.click(screen.getByRole('button', { name: 'Passwort ändern' }));
    const field = screen.getByLabelText('Aktuelles Passwort');
    await waitFor(() => expect(field.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById(field.getAttribute('aria-describedby')!)!.textContent).toBe('Das aktuelle Passwort ist nicht korrekt.');
    expect(screen.getByLabelText('Neues Passwort').getAttribute('aria-invalid')).toBeNull();
  });

  it('ties a weak new password to its field', async () => {
    answer(400, { new_password: ['This password is too common.'] });
    render(
      <I18nProvider value={makeI18n('en')}>
        <ChangePasswordPage />
      </I18nProvider>,
    );
    fill('old password here', 'password1');
    const field = screen.getByLabelText('New password');
    await waitFor(() => expect(field.getAttribute('aria-invalid')).toBe('true'));
    expect(screen.getByText(/Choose a stronger password/)).toBeTruthy();
    expect(screen.queryByText(/Your password is changed/)).toBeNull();
  });
});
