package nod

// Topic names where a conversation lives: a chat and, in a forum
// supergroup, one of its topics. Thread is the topic's
// message_thread_id; 0 is the chat itself, outside any topic (a private
// chat, a group without topics, a forum's General topic). A topic's
// conversation is its own: its history, its pending change sets and its
// undo are kept apart from the chat's other topics, while the tasks are
// the chat's, shared by all of them.
//
// A record that lives in a conversation (a change set, an undo entry, an
// owed message, a deletion's question, a turn) embeds its Topic: its
// ChatID and Thread read as its own.
type Topic struct {
	ChatID ChatID
	Thread ThreadID
}

// ThreadID is a forum topic's message_thread_id; 0 outside topics.
type ThreadID int
