-- Flow alerts may also go to webhook connections (Slack, Teams, PagerDuty or any
-- HTTP receiver), by name, beside the mail recipients.
ALTER TABLE flows ADD COLUMN alert_webhooks text[] NOT NULL DEFAULT '{}';
