package nod

// Topic names where a conversation lives: a chat and, in a forum
// supergroup, one of its topics. Thread is the topic's
// message_thread_id; 0 is the chat itself, outside any topic (a private
// chat, a group without topics, a forum's General topic). A topic's
// conversation is its own: its history, its pending change sets and its
// undo are kept apart from the chat's other topics, while the tasks are
// the chat's, shared by all of them.
type Topic struct {
	Chat   ChatID
	Thread int
}

// Topic is where the set's message goes.
func (cs ChangeSet) Topic() Topic { return Topic{cs.ChatID, cs.Thread} }

// Topic is where the owed message goes.
func (o Owed) Topic() Topic { return Topic{o.ChatID, o.Thread} }

// Topic is where the deletion's question is asked.
func (d PendingDeletion) Topic() Topic { return Topic{d.ChatID, d.Thread} }

// Topic is where the turn runs.
func (r TurnRequest) Topic() Topic { return Topic{r.ChatID, r.Thread} }
