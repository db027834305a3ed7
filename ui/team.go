package ui

import (
	"net/http"
	"net/url"

	"earshot/api"
	"earshot/capability"
)

// Teamwork on the mention page and in the inbox (issue 26): the members a
// mention can be assigned to, its internal notes, tag suggestions, and
// the inbox's "a" key (assign the current mention to me).

// teamData fills the mention page's assignment, tags and notes parts.
func (u *UI) teamData(r *http.Request, pg *page, d *mentionData) {
	ctx := r.Context()
	d.me, d.owner = pg.User.ID, pg.P != nil && pg.P.Role == "owner"
	if o := u.exec(ctx, pg.P, "list_members", &capability.Empty{}); o.Err == nil {
		d.Members = o.Data.(*capability.MembersOut).Members
	}
	if o := u.exec(ctx, pg.P, "list_mention_notes", &capability.IDPath{ID: d.M.ID}); o.Err == nil {
		d.Notes = o.Data.(*capability.NotesOut).Notes
	}
	if d.Rows.CanWrite {
		if o := u.exec(ctx, pg.P, "list_tags", &capability.Empty{}); o.Err == nil {
			for _, t := range o.Data.(*capability.TagsOut).Tags {
				d.TagSuggestions = append(d.TagSuggestions, t.Tag)
			}
		}
	}
}

// CanDelete: the note's author or a project owner may delete it (as
// delete_mention_note allows), and only with mentions:write.
func (d *mentionData) CanDelete(n *api.Note) bool {
	return d.Rows.CanWrite && (d.owner || (n.Author != nil && n.Author.ID == d.me))
}

// assign is the inbox's "a" key: assign_mention (assignee me) or, with
// assignee empty, unassign_mention, on one mention; it answers the
// re-rendered row, as setStatus does.
func (u *UI) assign(w http.ResponseWriter, r *http.Request, s *session) (any, *capability.Error) {
	id := r.FormValue("id")
	name, in := "unassign_mention", url.Values{"id": {id}}
	if who := r.FormValue("assignee_id"); who != "" {
		name = "assign_mention"
		in.Set("assignee_id", who)
	}
	o := u.run(r.Context(), s.p, name, in, false)
	if o.Err != nil {
		return nil, o.Err
	}
	m := o.Data.(*api.Mention)
	html, err := u.renderRows(u.rowsOf(r, s), []*api.Mention{m})
	if err != nil {
		return nil, capability.Internal()
	}
	return map[string]any{"id": id, "html": html, "assigned": m.Assignee != nil}, nil
}
