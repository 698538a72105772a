"The text: corpora, the builtin stories, the TinyStories samples, checks of local texts."
