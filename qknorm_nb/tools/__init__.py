"Speed, the site, the published advice, the wings test."
