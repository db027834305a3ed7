package api

// Category is a project's configuration of one category value.
type Category struct {
	Category    string `json:"category"`
	Label       string `json:"label"`
	Description string `json:"description"`
	Enabled     bool   `json:"enabled"`
}

// Member is a user's membership of a project.
type Member struct {
	UserID    string `json:"user_id"`
	Email     string `json:"email"`
	FullName  string `json:"full_name"`
	Role      string `json:"role"`
	CreatedAt string `json:"created_at"`
}

// APIKey is a project-scoped credential; only the SHA-256 of the secret is kept.
type APIKey struct {
	ID         string   `json:"id"`
	ProjectID  string   `json:"project_id"`
	Name       string   `json:"name"`
	Prefix     string   `json:"prefix"`
	Last4      string   `json:"last4"`
	Scopes     []string `json:"scopes"`
	CreatedBy  string   `json:"created_by,omitempty"`
	CreatedAt  string   `json:"created_at"`
	LastUsedAt *string  `json:"last_used_at"`
	RevokedAt  *string  `json:"revoked_at"`
}
