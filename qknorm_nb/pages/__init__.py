"The pages' plumbing and the study report."
