-- The example home's iMessage database, as SQL text. chat.db beside it is
-- built from this file (sqlite3 chat.db < chat.sql); a test checks they agree.
-- Columns are the subset of a macOS 13 chat.db that amem reads.
PRAGMA journal_mode = DELETE;
CREATE TABLE handle (ROWID INTEGER PRIMARY KEY AUTOINCREMENT UNIQUE, id TEXT NOT NULL, country TEXT, service TEXT NOT NULL, uncanonicalized_id TEXT, person_centric_id TEXT, UNIQUE (id, service));
CREATE TABLE chat (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, style INTEGER, state INTEGER, account_id TEXT, properties BLOB, chat_identifier TEXT, service_name TEXT, room_name TEXT, account_login TEXT, is_archived INTEGER DEFAULT 0, last_addressed_handle TEXT, display_name TEXT, group_id TEXT, is_filtered INTEGER DEFAULT 0, successful_query INTEGER);
CREATE TABLE message (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, text TEXT, replace INTEGER DEFAULT 0, service_center TEXT, handle_id INTEGER DEFAULT 0, subject TEXT, country TEXT, attributedBody BLOB, version INTEGER DEFAULT 0, type INTEGER DEFAULT 0, service TEXT, account TEXT, account_guid TEXT, error INTEGER DEFAULT 0, date INTEGER, date_read INTEGER, date_delivered INTEGER, is_delivered INTEGER DEFAULT 0, is_finished INTEGER DEFAULT 0, is_emote INTEGER DEFAULT 0, is_from_me INTEGER DEFAULT 0, is_empty INTEGER DEFAULT 0, is_delayed INTEGER DEFAULT 0, is_auto_reply INTEGER DEFAULT 0, is_prepared INTEGER DEFAULT 0, is_read INTEGER DEFAULT 0, is_system_message INTEGER DEFAULT 0, is_sent INTEGER DEFAULT 0, has_dd_results INTEGER DEFAULT 0, cache_has_attachments INTEGER DEFAULT 0, item_type INTEGER DEFAULT 0, group_title TEXT, group_action_type INTEGER DEFAULT 0, associated_message_guid TEXT, associated_message_type INTEGER DEFAULT 0, balloon_bundle_id TEXT, thread_originator_guid TEXT, date_edited INTEGER DEFAULT 0, date_retracted INTEGER DEFAULT 0);
CREATE TABLE chat_message_join (chat_id INTEGER REFERENCES chat (ROWID) ON DELETE CASCADE, message_id INTEGER REFERENCES message (ROWID) ON DELETE CASCADE, message_date INTEGER DEFAULT 0, PRIMARY KEY (chat_id, message_id));
CREATE TABLE chat_handle_join (chat_id INTEGER REFERENCES chat (ROWID) ON DELETE CASCADE, handle_id INTEGER REFERENCES handle (ROWID) ON DELETE CASCADE, UNIQUE(chat_id, handle_id));

INSERT INTO handle (ROWID, id, country, service, uncanonicalized_id) VALUES (1, '+15555550101', 'us', 'iMessage', '+15555550101');
INSERT INTO handle (ROWID, id, country, service, uncanonicalized_id) VALUES (2, 'sam@example.org', 'us', 'iMessage', NULL);
INSERT INTO chat (ROWID, guid, style, chat_identifier, service_name, display_name) VALUES (1, 'iMessage;-;+15555550101', 45, '+15555550101', 'iMessage', '');
INSERT INTO chat (ROWID, guid, style, chat_identifier, service_name, display_name) VALUES (2, 'iMessage;+;chat9000001', 43, 'chat9000001', 'iMessage', 'Paris trip');
INSERT INTO chat_handle_join VALUES (1, 1), (2, 1), (2, 2);

INSERT INTO message (ROWID, guid, text, handle_id, service, date, is_from_me) VALUES (1, 'A1B2C3D4-0001-4000-8000-000000000001', 'The Eiffel Tower was completed in 1889.', 1, 'iMessage', 769024800000000000, 0);
INSERT INTO message (ROWID, guid, text, handle_id, service, date, is_from_me) VALUES (2, 'A1B2C3D4-0002-4000-8000-000000000002', 'And Everest is 8,611 metres tall, the tallest mountain on Earth.', 1, 'iMessage', 769024860000000000, 0);
INSERT INTO message (ROWID, guid, text, handle_id, service, date, is_from_me) VALUES (3, 'A1B2C3D4-0003-4000-8000-000000000003', 'The new bakery on Rue Cler opens next Tuesday.', 0, 'iMessage', 769024950000000000, 1);
INSERT INTO message (ROWID, guid, text, handle_id, service, date, is_from_me, associated_message_guid, associated_message_type) VALUES (4, 'A1B2C3D4-0004-4000-8000-000000000004', 'Loved “The new bakery on Rue Cler opens next Tuesday.”', 2, 'iMessage', 769024980000000000, 0, 'p:0/A1B2C3D4-0003-4000-8000-000000000003', 2000);
INSERT INTO message (ROWID, guid, text, handle_id, service, date, is_from_me) VALUES (5, 'A1B2C3D4-0005-4000-8000-000000000005', 'haha ok see you there', 2, 'iMessage', 769079700000000000, 0);
INSERT INTO chat_message_join (chat_id, message_id, message_date) VALUES (1, 1, 769024800000000000), (1, 2, 769024860000000000), (2, 3, 769024950000000000), (2, 4, 769024980000000000), (2, 5, 769079700000000000);
