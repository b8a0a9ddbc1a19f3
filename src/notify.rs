//! The e-mail notifier: tells a deck's owner about the first view through a share link that
//! asks for it (`notify_on_view`), over SMTP (`--smtp-url`). Sending happens in the
//! background; a failure is logged and never affects the visitor's page.

use lectern_core::store::Notifier;
use lectern_core::store::UserRecord;
use lettre::message::Mailbox;
use lettre::message::header::ContentType;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

/// Sends notifications as e-mail through one SMTP relay.
pub struct SmtpNotifier {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl SmtpNotifier {
    /// A notifier for `url` (`smtps://user:pass@host:465`, `smtp://host:587?tls=required`,
    /// or plain `smtp://host:port` for a local relay) sending from `from`.
    pub fn new(url: &str, from: &str) -> anyhow::Result<Self> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|e| anyhow::anyhow!("bad --smtp-url: {e}"))?
            .build();
        let from = from
            .parse()
            .map_err(|e| anyhow::anyhow!("bad --smtp-from {from:?}: {e}"))?;
        Ok(SmtpNotifier { transport, from })
    }
}

impl Notifier for SmtpNotifier {
    fn first_view(&self, owner: &UserRecord, deck_title: &str, link_name: &str) {
        let to: Mailbox = match owner.email.parse() {
            Ok(to) => to,
            Err(e) => {
                tracing::warn!(user.id = owner.id, error = %e, "owner e-mail address is not usable");
                return;
            }
        };
        let link = if link_name.is_empty() {
            "a share link".to_string()
        } else {
            format!("the share link \"{link_name}\"")
        };
        let message = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(format!("Your presentation \"{deck_title}\" was viewed"))
            .header(ContentType::TEXT_PLAIN)
            .body(format!(
                "Hello {},\n\nsomeone opened your presentation \"{deck_title}\" through {link} for the first time.\n\n-- Lectern\n",
                owner.name
            ));
        let message = match message {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!(error = %e, "building a notification failed");
                return;
            }
        };
        let transport = self.transport.clone();
        let user_id = owner.id;
        tokio::spawn(async move {
            match transport.send(message).await {
                Ok(_) => tracing::info!(user.id = user_id, "first-view notification sent"),
                Err(e) => {
                    tracing::warn!(user.id = user_id, error = %e, "sending a notification failed")
                }
            }
        });
    }
}
