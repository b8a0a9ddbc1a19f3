//! First-view notifications of share links, sent by e-mail to a local SMTP sink.

use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

use crate::common::TestApp;

/// A minimal SMTP server that accepts every message and keeps it (recipients and data).
async fn smtp_sink() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("smtp://{}", listener.local_addr().unwrap());
    let inbox = Arc::new(Mutex::new(Vec::new()));
    let kept = inbox.clone();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let kept = kept.clone();
            tokio::spawn(async move {
                let (read, mut write) = stream.into_split();
                let mut lines = BufReader::new(read).lines();
                write.write_all(b"220 sink ESMTP\r\n").await.unwrap();
                let mut message = String::new();
                while let Ok(Some(line)) = lines.next_line().await {
                    let upper = line.to_ascii_uppercase();
                    let reply: &[u8] = if upper.starts_with("EHLO") || upper.starts_with("HELO") {
                        b"250 sink\r\n"
                    } else if upper.starts_with("RCPT") {
                        message.push_str(&line);
                        message.push('\n');
                        b"250 OK\r\n"
                    } else if upper.starts_with("DATA") {
                        write.write_all(b"354 go ahead\r\n").await.unwrap();
                        while let Ok(Some(data)) = lines.next_line().await {
                            if data == "." {
                                break;
                            }
                            message.push_str(&data);
                            message.push('\n');
                        }
                        kept.lock().unwrap().push(std::mem::take(&mut message));
                        b"250 queued\r\n"
                    } else if upper.starts_with("QUIT") {
                        let _ = write.write_all(b"221 bye\r\n").await;
                        return;
                    } else {
                        b"250 OK\r\n"
                    };
                    if write.write_all(reply).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (url, inbox)
}

/// Polls the inbox until it holds `n` messages (or a few seconds pass).
async fn wait_for_messages(inbox: &Arc<Mutex<Vec<String>>>, n: usize) -> Vec<String> {
    for _ in 0..100 {
        if inbox.lock().unwrap().len() >= n {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    inbox.lock().unwrap().clone()
}

#[tokio::test]
async fn the_owner_gets_one_email_on_the_first_view_of_a_notifying_link() {
    let (url, inbox) = smtp_sink().await;
    let notifier = lectern::notify::SmtpNotifier::new(&url, "Lectern <lectern@localhost>").unwrap();
    let app = TestApp::spawn_with(|core| core.with_notifier(Arc::new(notifier))).await;
    let alice = app.user("alice").await;
    let deck = app
        .create_deck(&alice.key, json!({"title": "Roadmap"}))
        .await
        .data()["id"]
        .clone();
    let share = |body: serde_json::Value| {
        let (app, key, deck) = (&app, alice.key.clone(), deck.clone());
        async move {
            let r = app
                .call(
                    reqwest::Method::POST,
                    &format!("/v1/decks/{deck}/share"),
                    Some(&key),
                    Some(body),
                )
                .await;
            r.data()["url"].as_str().unwrap().to_string()
        }
    };
    let board = share(json!({"name": "board", "notify_on_view": true})).await;
    let quiet = share(json!({"name": "quiet"})).await;
    let later = share(json!({"name": "later", "notify_on_view": true})).await;
    let view = |url: String| async move { reqwest::get(url).await.unwrap().status() };

    assert_eq!(view(board.clone()).await, 200);
    let first = wait_for_messages(&inbox, 1).await;
    assert_eq!(view(board.clone()).await, 200);
    assert_eq!(view(quiet).await, 200);
    assert_eq!(view(later).await, 200);
    let all = wait_for_messages(&inbox, 2).await;

    assert_eq!(first.len(), 1);
    assert!(first[0].contains("alice@example.org"), "{}", first[0]);
    assert!(first[0].contains("Roadmap") && first[0].contains("board"));
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(
        all.iter().filter(|m| m.contains("\"board\"")).count(),
        1,
        "one e-mail per link"
    );
    assert!(all.iter().any(|m| m.contains("\"later\"")));
    assert!(!all.iter().any(|m| m.contains("\"quiet\"")));
}
