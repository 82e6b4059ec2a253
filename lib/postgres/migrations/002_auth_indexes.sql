-- why: sign-out-everywhere (password change) and the sweep of expired refresh tokens look
-- tokens up by user.
CREATE INDEX refresh_tokens_user ON refresh_tokens (user_id);
