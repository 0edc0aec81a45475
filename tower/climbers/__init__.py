"""The Climbers (Chili Spiele): the tower-climbing game."""
