package capability

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"earshot/api"
	"earshot/store"

	"github.com/google/uuid"
)

// Teamwork on mentions (issue 26; docs/decisions.md#teamwork): assignment,
// free tags and internal notes. Each is its own operation rather than more
// fields of update_mention_status, whose PATCH needs a status (or a
// public_visibility) by contract, and whose event (mention.updated) means
// the status changed.

// AssigneeMe in an assignee field or filter is the caller.
const AssigneeMe = "me"

type AssignMentionIn struct {
	ID         string `json:"id" in:"path" validate:"required,format=uuid" doc:"Mention id."`
	AssigneeID string `json:"assignee_id" validate:"required,maxlen=36" doc:"The member to assign the mention to: their user id (see list_members), or me for the caller."`
}

type MentionTagIn struct {
	ID  string `json:"id" in:"path" validate:"required,format=uuid" doc:"Mention id."`
	Tag string `json:"tag" in:"path" validate:"required,maxlen=40" doc:"The tag: 1-40 letters, digits, '-', '_' or '.'; letter case is ignored (stored lower case)."`
}

type AddNoteIn struct {
	ID   string `json:"id" in:"path" validate:"required,format=uuid" doc:"Mention id."`
	Text string `json:"text" validate:"required,maxlen=5000" doc:"The note, plain text. Members only: never on the public page."`
}

type NotePath struct {
	ID     string `json:"id" in:"path" validate:"required,format=uuid" doc:"Mention id."`
	NoteID string `json:"note_id" in:"path" validate:"required,format=uuid" doc:"Note id."`
}

type NotesOut struct {
	Notes []*api.Note `json:"notes"`
}

type TagCount struct {
	Tag      string `json:"tag"`
	Mentions int    `json:"mentions" doc:"How many of the project's mentions carry it."`
}

type TagsOut struct {
	Tags []TagCount `json:"tags"`
}

func (s *Service) teamworkCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "assign_mention", Title: "Assign a mention", Group: "mention", Method: "PUT", Path: "/api/v1/mentions/:id/assignee",
			Scope: MentionsWrite, Write: true, Idempotent: true,
			Description: "Assign a mention to a project member (assignee_id: their user id, or me), replacing any assignee. Returns the full mention; " +
				"a real change fires mention.assigned with the mention and previous_assignee. List a member's mentions with list_mentions assignee=me or assignee=<user id>."},
			s.assignMention),
		Define(Capability{Name: "unassign_mention", Title: "Unassign a mention", Group: "mention", Method: "DELETE", Path: "/api/v1/mentions/:id/assignee",
			Scope: MentionsWrite, Write: true, Idempotent: true,
			Description: "Take the assignee off a mention (nothing changes when it has none). Returns the full mention; a real change fires mention.assigned with assignee null."},
			func(ctx context.Context, p *Principal, in *IDPath) (*api.Mention, error) {
				m, err := s.Store.AssignMention(ctx, p.ProjectID, in.ID, "")
				return m.Record(), err
			}),
		Define(Capability{Name: "tag_mention", Title: "Tag a mention", Group: "mention", Method: "PUT", Path: "/api/v1/mentions/:id/tags/:tag",
			Scope: MentionsWrite, Write: true, Idempotent: true,
			Description: "Add a free tag to a mention (at most 20 per mention; adding one it has changes nothing). Returns the full mention. Filter with list_mentions tag=…; export_mentions has a tags column."},
			func(ctx context.Context, p *Principal, in *MentionTagIn) (*api.Mention, error) {
				return s.tagMention(ctx, p, in, true)
			}),
		Define(Capability{Name: "untag_mention", Title: "Remove a tag", Group: "mention", Method: "DELETE", Path: "/api/v1/mentions/:id/tags/:tag",
			Scope: MentionsWrite, Write: true, Idempotent: true,
			Description: "Remove a tag from a mention (nothing changes when it does not carry it). Returns the full mention."},
			func(ctx context.Context, p *Principal, in *MentionTagIn) (*api.Mention, error) {
				return s.tagMention(ctx, p, in, false)
			}),
		Define(Capability{Name: "list_tags", Title: "List tags", Group: "mention", Method: "GET", Path: "/api/v1/tags",
			Scope: MentionsRead, Idempotent: true,
			Description: "The tags in use in the project with how many mentions carry each, most used first (up to 200)."},
			s.listTags),
		Define(Capability{Name: "list_mention_notes", Title: "List notes", Group: "mention", Method: "GET", Path: "/api/v1/mentions/:id/notes",
			Scope: MentionsRead, Idempotent: true,
			Description: "A mention's internal notes, oldest first: author, time and text. Notes are for the project's members only and never public."},
			func(ctx context.Context, p *Principal, in *IDPath) (*NotesOut, error) {
				ns, err := s.Store.Notes(ctx, p.ProjectID, in.ID)
				if err != nil {
					return nil, err
				}
				out := &NotesOut{Notes: make([]*api.Note, len(ns))}
				for i, n := range ns {
					out.Notes[i] = n.Record()
				}
				return out, nil
			}),
		Define(Capability{Name: "add_mention_note", Title: "Add a note", Group: "mention", Method: "POST", Path: "/api/v1/mentions/:id/notes",
			Scope: MentionsWrite, Write: true,
			Description: "Write an internal note on a mention (who handles it, what was answered, context for the team). Returns the note."},
			func(ctx context.Context, p *Principal, in *AddNoteIn) (*api.Note, error) {
				if strings.TrimSpace(in.Text) == "" {
					return nil, Invalid("text", "text must hold more than white space")
				}
				n, err := s.Store.AddNote(ctx, p.ProjectID, in.ID, p.UserID, in.Text)
				if err != nil {
					return nil, err
				}
				return n.Record(), nil
			}),
		Define(Capability{Name: "delete_mention_note", Title: "Delete a note", Group: "mention", Method: "DELETE", Path: "/api/v1/mentions/:id/notes/:note_id",
			Scope: MentionsWrite, Write: true, Destructive: true, Idempotent: true,
			Description: "Delete a note. Its author or a project owner may."},
			s.deleteNote),
	}
}

func (s *Service) assignMention(ctx context.Context, p *Principal, in *AssignMentionIn) (*api.Mention, error) {
	// Another project's mention answers 404 before the assignee is looked at.
	if _, err := s.Store.Mention(ctx, p.ProjectID, in.ID); err != nil {
		return nil, err
	}
	who := in.AssigneeID
	if who == AssigneeMe {
		if p.UserID == "" {
			return nil, Invalid("assignee_id", "me names the caller, and this credential belongs to no user; give a user id")
		}
		who = p.UserID
	}
	if _, err := uuid.Parse(who); err != nil {
		return nil, Invalid("assignee_id", "assignee_id must be a member's user id or me")
	}
	before, err := s.Store.Mention(ctx, p.ProjectID, in.ID)
	if err != nil {
		return nil, err
	}
	m, err := s.Store.AssignMention(ctx, p.ProjectID, in.ID, who)
	if errors.Is(err, store.ErrNotMember) {
		return nil, Invalid("assignee_id", "the user is not a member of this project")
	}
	if err != nil {
		return nil, err
	}
	if who != p.UserID && before.AssigneeID() != who {
		s.notifyAssignee(ctx, p, m)
	}
	return m.Record(), nil
}

// notifyAssignee emails a member a mention someone else assigned them,
// when SMTP is configured (the mention.assigned webhook event is the
// machine-readable twin). Sent after answering; a failure is logged.
func (s *Service) notifyAssignee(ctx context.Context, p *Principal, m *store.Mention) {
	if s.SendEmail == nil || m.Assignee == nil {
		return
	}
	u, err := s.Store.UserByID(ctx, m.AssigneeID())
	if err != nil {
		s.Log.Warn("assignment email: assignee", "err", err)
		return
	}
	by := "Someone"
	if p.UserID != "" {
		if a, err := s.Store.UserByID(ctx, p.UserID); err == nil {
			by = a.FullName
			if by == "" {
				by = a.Email
			}
		}
	}
	what := m.AISummary
	if what == "" {
		what = m.Text
	}
	if r := []rune(what); len(r) > 280 {
		what = string(r[:280]) + "…"
	}
	link := strings.TrimRight(s.Config.BaseURL, "/") + "/mentions/" + m.ID
	body := by + " assigned you a mention on Earshot.\n\n" + m.Source + " post by " + m.AuthorHandle + " (urgency " + strconv.Itoa(m.Urgency) + "):\n" + what + "\n\nOpen it: " + link + "\n"
	s.sendLater(ctx, u.Email, "Assigned to you: "+m.Source+" post by "+m.AuthorHandle, body, "mention_id", m.ID)
}

func (s *Service) tagMention(ctx context.Context, p *Principal, in *MentionTagIn, add bool) (*api.Mention, error) {
	if _, err := s.Store.Mention(ctx, p.ProjectID, in.ID); err != nil {
		return nil, err
	}
	tag := store.NormalizeTag(in.Tag)
	if !store.ValidTag(tag) {
		return nil, Invalid("tag", "a tag is 1-40 letters, digits, '-', '_' or '.'")
	}
	m, err := s.Store.TagMention(ctx, p.ProjectID, in.ID, tag, add)
	if errors.Is(err, store.ErrTooManyTags) {
		return nil, Invalid("tag", "a mention carries at most %d tags", store.MaxTags)
	}
	return m.Record(), err
}

func (s *Service) listTags(ctx context.Context, p *Principal, _ *Empty) (*TagsOut, error) {
	ts, err := s.Store.ProjectTags(ctx, p.ProjectID, 200)
	if err != nil {
		return nil, err
	}
	out := &TagsOut{Tags: make([]TagCount, len(ts))}
	for i, t := range ts {
		out.Tags[i] = TagCount{Tag: t.Tag, Mentions: t.Count}
	}
	return out, nil
}

func (s *Service) deleteNote(ctx context.Context, p *Principal, in *NotePath) (*DeletedOut, error) {
	n, err := s.Store.Note(ctx, p.ProjectID, in.ID, in.NoteID)
	if err != nil {
		return nil, err
	}
	mine := n.AuthorID != nil && *n.AuthorID == p.UserID
	role := p.Role
	if role == "" && p.Kind == KindKey && p.UserID != "" {
		// A key acts with its creator's standing in the project.
		role, _ = s.Store.Membership(ctx, p.ProjectID, p.UserID)
	}
	if !mine && role != "owner" && p.Kind != KindSystem {
		return nil, Forbidden("only the note's author or a project owner may delete it")
	}
	if err := s.Store.DeleteNote(ctx, p.ProjectID, in.ID, in.NoteID); err != nil {
		return nil, err
	}
	return &DeletedOut{Deleted: true, ID: in.NoteID}, nil
}

// teamFilter checks the assignee filter and resolves me to the caller.
func teamFilter(p *Principal, f *store.MentionFilter) error {
	switch f.Assignee {
	case "", store.AssigneeNone:
	case AssigneeMe:
		if p.UserID == "" {
			return Invalid("assignee", "me names the caller, and this credential belongs to no user; give a user id")
		}
		f.Assignee = p.UserID
	default:
		if _, err := uuid.Parse(f.Assignee); err != nil {
			return Invalid("assignee", "assignee must be me, none or a member's user id")
		}
	}
	if f.Tag != "" && !store.ValidTag(f.Tag) {
		return Invalid("tag", "a tag is 1-40 letters, digits, '-', '_' or '.'")
	}
	return nil
}

// checkTeamFilters checks a saved view's or an alert's assignee and tag
// filters. "me" is kept as written: a shared view means each viewer's own
// assignments, resolved when it is read.
func checkTeamFilters(f *MentionFilters) error {
	switch f.Assignee {
	case "", AssigneeMe, store.AssigneeNone:
	default:
		if _, err := uuid.Parse(f.Assignee); err != nil {
			return Invalid("filters.assignee", "filters.assignee must be me, none or a member's user id")
		}
	}
	if f.Tag != "" && !store.ValidTag(store.NormalizeTag(f.Tag)) {
		return Invalid("filters.tag", "a tag is 1-40 letters, digits, '-', '_' or '.'")
	}
	return nil
}
